/** The evaluation run's repos: built once by the feature's assembly and handed to the run and its steps. */
import type { FlappingRepo } from './flapping-repo.js';
import type { ForecastRepo } from './forecast-repo.js';
import type { RunIncidentsRepo } from './incidents-repo.js';
import type { ObservationsRepo } from './observations-repo.js';
import type { RunRepo } from './repo.js';

export interface EvaluationRepos {
  /** Rules, systems, open alerts and the run's own bookkeeping. */
  run: RunRepo;
  /** What the agents sent: latest values, silence, reboots, events. */
  observations: ObservationsRepo;
  incidents: RunIncidentsRepo;
  flapping: FlappingRepo;
  forecasts: ForecastRepo;
}
