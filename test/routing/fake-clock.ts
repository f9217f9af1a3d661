import type { Clock } from '../../server/shared/clock.ts';

/** A clock that moves only when told, with a scripted random source (0.5 = no jitter). */
export class FakeClock implements Clock {
  private t = 1_000_000;
  randomValue = 0.5;

  now(): number {
    return this.t;
  }

  random(): number {
    return this.randomValue;
  }

  advance(ms: number): void {
    this.t += ms;
  }
}
