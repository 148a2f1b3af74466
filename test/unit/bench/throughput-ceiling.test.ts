import { describe, expect, it } from 'vitest';
import { throughputCeiling } from '../../bench/throughput-ceiling.ts';

describe('throughputCeiling', () => {
  it('bounds writes/s by the cores over the target and load generator CPU per write', () => {
    // 2 cores, 0.9 + 0.18 ms per write: 2,000 / 1.08 = 1,851.85 writes/s.
    const ceiling = throughputCeiling({ cores: 2, targetCpuMsPerWrite: 0.9, loadGeneratorCpuMsPerWrite: 0.18, baselineWritesPerSecond: 3111, aim: 1 });
    expect(ceiling.writesPerSecond).toBeCloseTo(1851.85, 1);
    expect(ceiling.ratio).toBeCloseTo(0.595, 3);
    // Reaching 3,111 writes/s needs 2,000 / 3,111 = 0.6429 ms per write in all, 0.18 of it the load generator's.
    expect(ceiling.targetCpuMsPerWriteForAim).toBeCloseTo(0.4629, 4);
  });

  it('scales the needed CPU with the aim', () => {
    const ceiling = throughputCeiling({ cores: 2, targetCpuMsPerWrite: 0.3, loadGeneratorCpuMsPerWrite: 0.18, baselineWritesPerSecond: 3111, aim: 1.5 });
    // 2,000 / (1.5 × 3,111) − 0.18 = 0.2486.
    expect(ceiling.targetCpuMsPerWriteForAim).toBeCloseTo(0.2486, 4);
    expect(ceiling.ratio).toBeCloseTo(2000 / 0.48 / 3111, 6);
    expect(ceiling.ratio).toBeLessThan(1.5);
  });

  it('says 0 when the load generator alone leaves no room for the aim', () => {
    const ceiling = throughputCeiling({ cores: 1, targetCpuMsPerWrite: 0.1, loadGeneratorCpuMsPerWrite: 0.5, baselineWritesPerSecond: 2000, aim: 1 });
    expect(ceiling.targetCpuMsPerWriteForAim).toBe(0);
    expect(ceiling.writesPerSecond).toBeCloseTo(1666.67, 1);
  });

  it('rejects figures that are not measurements', () => {
    expect(() => throughputCeiling({ cores: 2, targetCpuMsPerWrite: Number.NaN, loadGeneratorCpuMsPerWrite: 0.1, baselineWritesPerSecond: 1, aim: 1 })).toThrow(/targetCpuMsPerWrite/);
    expect(() => throughputCeiling({ cores: 2, targetCpuMsPerWrite: 0.1, loadGeneratorCpuMsPerWrite: -1, baselineWritesPerSecond: 1, aim: 1 })).toThrow(/loadGeneratorCpuMsPerWrite/);
    expect(() => throughputCeiling({ cores: 2, targetCpuMsPerWrite: 0.1, loadGeneratorCpuMsPerWrite: 0.1, baselineWritesPerSecond: 0, aim: 1 })).toThrow(/above 0/);
  });
});
