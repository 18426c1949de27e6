/** What a room reaches of its RoomServer: lock and metadata go to the directory, kicks to netcode. */
import type { AnyMessageType } from '../channels/message.js';
import type { MessageServer } from '../channels/message-endpoints.js';
import type { Directory } from './directory.js';
import type { Room, RoomHost } from './room.js';
import type { RoomSeating } from './room-seating.js';

export interface RoomHostParts {
  messages: MessageServer<AnyMessageType>;
  directory: Directory;
  seating: RoomSeating;
  /** Whether the room is hosted still (and the process not stopped): else its changes are dropped. */
  live: (room: Room) => boolean;
  report: (error: unknown, where: string) => void;
}

export function roomHost(parts: RoomHostParts): RoomHost {
  const { messages, directory, seating, live, report } = parts;
  const update = (room: Room, patch: Parameters<Directory['updateRoom']>[1]) => {
    if (!live(room)) return;
    directory.updateRoom(room.roomId, patch).catch((error) => {
      seating.counters.directoryErrors++;
      report(error, 'updateRoom');
    });
  };
  return {
    messages,
    slots: messages.server.maxClients,
    setLocked: (room, locked) => update(room, { locked }),
    setMetadata: (room, metadata) => update(room, { metadata }),
    kick: (_room, client) => {
      if (client.index >= 0 && messages.server.isConnected(client.index))
        messages.server.disconnect(client.index);
      else seating.leave(client, true);
    },
  };
}
