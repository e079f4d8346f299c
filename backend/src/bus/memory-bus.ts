import { EventEmitter } from 'node:events';
import type { Bus, BusHandler } from './bus.js';

/** In-process bus for the demo (single app process, no Redis). */
export function createMemoryBus(): Bus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(topic, event) {
      // serialise like Redis would, so no subscriber can mutate the publisher's object
      const copy: unknown = JSON.parse(JSON.stringify(event));
      queueMicrotask(() => emitter.emit(topic, copy));
      return Promise.resolve(true);
    },
    subscribe(topic, handler: BusHandler) {
      emitter.on(topic, handler);
      return Promise.resolve(async () => {
        emitter.off(topic, handler);
      });
    },
    listens: (topic) => emitter.listenerCount(topic) > 0,
    async close() {
      emitter.removeAllListeners();
    },
  };
}
