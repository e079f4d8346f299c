/**
 * What the ingest does with a request's containers: the newest report's `containers` of a system is
 * written to `container_images`, and only when it says something new (a container started, removed,
 * or running another image): the agent lists them all in every report.
 */
import type { ContainerText } from '../../../contracts/agent-report.js';
import type { ContainerImagesRepo } from './container-images-repo.js';
import { createNewestTextRecorder } from './newest-text.js';

export function createContainerImagesRecorder(repo: ContainerImagesRepo) {
  return createNewestTextRecorder<ContainerText>({
    of: (report) => report.containers,
    fingerprint: (containers) => containers.map((c) => `${c.name}\u0000${c.image}`).join('\u0001'),
    write: (systemId, containers, reportedAt) => repo.record(systemId, containers, reportedAt),
  });
}

export type ContainerImagesRecorder = ReturnType<typeof createContainerImagesRecorder>;
