/**
 * Containers' images as the agent last reported them (`container_images`, one row per system and
 * container): the text of the report's `containers`, beside the `container.*` series. Containers
 * a report no longer lists (removed) are deleted (`newest-text-repo.ts`).
 */
import type { Knex } from 'knex';
import type { ContainerText } from '../../../contracts/agent-report.js';
import { createNewestTextRepo } from './newest-text-repo.js';

export function createContainerImagesRepo(db: Knex) {
  return createNewestTextRepo<ContainerText>(db, {
    table: 'container_images',
    columns: [{ column: 'image', type: 'text', of: (c) => c.image }],
  });
}

export type ContainerImagesRepo = ReturnType<typeof createContainerImagesRepo>;
