/** The browser-safe client of the backend lives in join/ (the browser bundle has it too). */
export * from '../join/backend-client.js';
