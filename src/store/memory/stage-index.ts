// Which stage each deal is at, by deal number, for stage-filtered pages without scanning every
// deal: one byte per deal, plus per-block counts of each stage so that a page skips the blocks
// that hold none of the stage it wants. Setting a deal's stage is O(1); a page of n deals
// touches n deals plus at most one count per block of 1024 deals.
import { STAGES, type Stage } from '../../domain/stages.ts';

const BLOCK = 1024;
const CODE = new Map<Stage, number>(STAGES.map((stage, i) => [stage, i + 1]));

export class StageIndex {
  private stageOf = new Uint8Array(BLOCK);
  /** counts[code][block]: how many deals of that stage in that block (code 0: any stage). */
  private counts: Uint16Array[] = Array.from({ length: STAGES.length + 1 }, () => new Uint16Array(1));

  private grow(number: number): void {
    if (number < this.stageOf.length) return;
    let size = this.stageOf.length;
    while (size <= number) size *= 2;
    const stageOf = new Uint8Array(size);
    stageOf.set(this.stageOf);
    this.stageOf = stageOf;
    this.counts = this.counts.map((old) => {
      const grown = new Uint16Array(size / BLOCK);
      grown.set(old);
      return grown;
    });
  }

  /** Records the deal's stage (undefined: the deal is gone). */
  set(number: number, stage: Stage | undefined): void {
    this.grow(number);
    const block = Math.floor(number / BLOCK);
    const old = this.stageOf[number];
    if (old !== 0) {
      this.counts[old][block]--;
      this.counts[0][block]--;
    }
    const code = stage === undefined ? 0 : (CODE.get(stage) as number);
    this.stageOf[number] = code;
    if (code !== 0) {
      this.counts[code][block]++;
      this.counts[0][block]++;
    }
  }

  stage(number: number): Stage | undefined {
    const code = number < this.stageOf.length ? this.stageOf[number] : 0;
    return code === 0 ? undefined : STAGES[code - 1];
  }

  /** Deal numbers after `after`, in order, of the stage (or of any stage), at most `limit`. */
  page(stage: Stage | undefined, after: number, limit: number): number[] {
    const code = stage === undefined ? 0 : (CODE.get(stage) as number);
    const counts = this.counts[code];
    const found: number[] = [];
    let number = Math.max(0, after + 1);
    while (found.length < limit && number < this.stageOf.length) {
      const block = Math.floor(number / BLOCK);
      if (counts[block] === 0) {
        number = (block + 1) * BLOCK;
        continue;
      }
      const end = Math.min((block + 1) * BLOCK, this.stageOf.length);
      for (; number < end && found.length < limit; number++) {
        const here = this.stageOf[number];
        if (code === 0 ? here !== 0 : here === code) found.push(number);
      }
    }
    return found;
  }
}
