/** The images of a system's containers, as its agent last listed them (written by the ingest). */
import type { Knex } from 'knex';
import type { ContainerImage } from '../../../contracts/systems.js';

export function createContainerImagesReader(db: Knex) {
  return {
    async ofSystem(systemId: number): Promise<ContainerImage[]> {
      const rows = await db('container_images')
        .where({ system_id: systemId })
        .orderBy('name')
        .select<{ name: string; image: string; reported_at: Date }[]>('name', 'image', 'reported_at');
      return rows.map((row) => ({ name: row.name, image: row.image, reportedAt: row.reported_at.toISOString() }));
    },
  };
}

export type ContainerImagesReader = ReturnType<typeof createContainerImagesReader>;
