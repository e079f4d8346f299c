/**
 * Containers' images as the agent last reported them (`container_images`, one row per system and
 * container): the text of the report's `containers`, beside the `container.*` series.
 */
import type { Knex } from 'knex';
import type { ContainerText } from '../../../contracts/agent-report.js';

export function createContainerImagesRepo(db: Knex) {
  return {
    /**
     * The system's containers as of the report at `reportedAt`: each row written unless a newer
     * report wrote it already, and containers this report no longer lists (removed) deleted.
     */
    async record(systemId: number, containers: readonly ContainerText[], reportedAt: Date): Promise<void> {
      const names = containers.map((c) => c.name);
      await db.raw(
        `WITH gone AS (
           DELETE FROM container_images
            WHERE system_id = :systemId AND reported_at <= :reportedAt AND NOT (name = ANY(:names::text[]))
         )
         INSERT INTO container_images (system_id, name, image, reported_at)
         SELECT :systemId, name, image, :reportedAt
           FROM unnest(:names::text[], :images::text[]) AS c(name, image)
         ON CONFLICT (system_id, name) DO UPDATE
            SET image = excluded.image, reported_at = excluded.reported_at
          WHERE container_images.reported_at <= excluded.reported_at`,
        { systemId, reportedAt, names, images: containers.map((c) => c.image) },
      );
    },
  };
}

export type ContainerImagesRepo = ReturnType<typeof createContainerImagesRepo>;
