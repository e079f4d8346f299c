/**
 * A report's samples in the form the write path keeps them: its series set (the ordered names and
 * instances, one object shared by every report with the same set) and its values as one array of
 * numbers. The parsed sample objects are dropped right after the check, so they die young instead
 * of living in the queue until their statement commits (docs/decisions.md "Ingest: a report's
 * samples packed before they queue").
 */

/** The ordered series of a report (`metric_series_sets`); `id` is filled in by the repo once known. */
export interface SeriesSet {
  readonly names: readonly string[];
  /** '' for a series without an instance. */
  readonly instances: readonly string[];
  /** Its row in metric_series_sets, once looked up (shared by every report of the set). */
  id: number | undefined;
}

/** A sample as the agent body holds it. */
export interface Sample {
  name: string;
  instance?: string | undefined;
  value: number;
}

export interface PackedSamples {
  set: SeriesSet;
  values: number[];
}

/** Sets known to this process; beyond this many the map starts over (a set is made again). */
const MAX_SETS = 50_000;
/** Systems whose last set is remembered; beyond this many the map starts over. */
const MAX_SYSTEMS = 200_000;

/** A new set of these samples' series (not shared: for tests and tools that write a few reports). */
export function seriesSetOf(samples: readonly Sample[]): SeriesSet {
  return {
    names: samples.map((sample) => sample.name),
    instances: samples.map((sample) => sample.instance ?? ''),
    id: undefined,
  };
}

/** Samples packed in a set of their own (tests and tools that write a few reports). */
export function packed(samples: readonly Sample[]): PackedSamples {
  return { set: seriesSetOf(samples), values: valuesOf(samples) };
}

/** The values of `samples`, in their order. */
function valuesOf(samples: readonly Sample[]): number[] {
  const values = new Array<number>(samples.length);
  for (let i = 0; i < samples.length; i++) values[i] = (samples[i] as Sample).value;
  return values;
}

function sameSeries(set: SeriesSet, samples: readonly Sample[]): boolean {
  const { names, instances } = set;
  if (names.length !== samples.length) return false;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i] as Sample;
    if (sample.name !== names[i] || (sample.instance ?? '') !== instances[i]) return false;
  }
  return true;
}

function keyOf(samples: readonly Sample[]): string {
  let key = '';
  for (const sample of samples) key += `${sample.name}\u0000${sample.instance ?? ''}\u0001`;
  return key;
}

/**
 * Packs reports by system: a report with its system's last set (nearly every report) is compared
 * with it name by name, no key made; another set is found by its key among the sets of this process
 * (so the systems of one set share one object and one lookup of its id).
 */
export function createSeriesSets() {
  let byKey = new Map<string, SeriesSet>();
  let lastOf = new Map<number, SeriesSet>();

  function setOf(systemId: number, samples: readonly Sample[]): SeriesSet {
    const last = lastOf.get(systemId);
    if (last && sameSeries(last, samples)) return last;
    const key = keyOf(samples);
    let set = byKey.get(key);
    if (!set) {
      if (byKey.size >= MAX_SETS) byKey = new Map();
      set = seriesSetOf(samples);
      byKey.set(key, set);
    }
    if (!last && lastOf.size >= MAX_SYSTEMS) lastOf = new Map();
    lastOf.set(systemId, set);
    return set;
  }

  return {
    pack(systemId: number, samples: readonly Sample[]): PackedSamples {
      return { set: setOf(systemId, samples), values: valuesOf(samples) };
    },
  };
}

export type SeriesSets = ReturnType<typeof createSeriesSets>;
