/** `node --import <this> ...`: hides the packages in HIDDEN_PACKAGES (see hidden-packages-hooks.ts). */
import { register } from 'node:module';

register(new URL('./hidden-packages-hooks.js', import.meta.url));
