// Owns: the most writes per second a machine's cores allow a closed-loop benchmark whose target
// and load generator share them, from CPU milliseconds per write as the benchmark measured them,
// and what the target's CPU per write would have to be for a throughput ratio to reach its aim.
//
// When the target and the load generator are both bound by CPU on the same cores, each write
// costs the machine (target + load generator) ms of CPU, so at most cores × 1000 ÷ that writes
// finish per second, however well the target spreads its work over threads and processes. The
// bound counts every core as free for the benchmark (other processes' use is left out), so it is
// generous to the target: a ratio goal whose bound is below its aim cannot be met on this machine
// at the measured costs.

export interface CeilingInput {
  /** The machine's cores (each 1,000 CPU ms per second). */
  readonly cores: number;
  /** The target's CPU ms per write, every process under test. */
  readonly targetCpuMsPerWrite: number;
  /** The load generator's own CPU ms per write against this target. */
  readonly loadGeneratorCpuMsPerWrite: number;
  /** The baseline's measured writes per second (the ratio's denominator). */
  readonly baselineWritesPerSecond: number;
  /** The ratio the goal asks for (target writes/s ÷ baseline writes/s). */
  readonly aim: number;
}

export interface ThroughputCeiling {
  /** cores × 1,000 ÷ (target + load generator CPU ms per write). */
  readonly writesPerSecond: number;
  /** writesPerSecond ÷ the baseline's writes per second: the highest ratio the cores allow. */
  readonly ratio: number;
  /** The target's CPU ms per write at which the bound reaches the aim, the load generator's cost unchanged; 0 when even a free target could not. */
  readonly targetCpuMsPerWriteForAim: number;
}

export function throughputCeiling(input: CeilingInput): ThroughputCeiling {
  const { cores, targetCpuMsPerWrite, loadGeneratorCpuMsPerWrite, baselineWritesPerSecond, aim } = input;
  for (const [name, value] of Object.entries(input)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0, not ${String(value)}`);
  }
  if (cores === 0 || baselineWritesPerSecond === 0 || aim === 0) throw new RangeError('cores, baselineWritesPerSecond and aim must be above 0');
  const cpuMsPerSecond = cores * 1000;
  const perWrite = targetCpuMsPerWrite + loadGeneratorCpuMsPerWrite;
  const writesPerSecond = perWrite === 0 ? Number.POSITIVE_INFINITY : cpuMsPerSecond / perWrite;
  const targetCpuMsPerWriteForAim = Math.max(0, cpuMsPerSecond / (aim * baselineWritesPerSecond) - loadGeneratorCpuMsPerWrite);
  return { writesPerSecond, ratio: writesPerSecond / baselineWritesPerSecond, targetCpuMsPerWriteForAim };
}
