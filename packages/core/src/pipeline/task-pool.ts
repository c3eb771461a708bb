/** Runs async tasks with at most `limit` at once, in the order they were added. */
export class TaskPool {
  readonly #limit: number;
  readonly #waiting: Array<() => Promise<void>> = [];
  #active = 0;
  #idle: Array<() => void> = [];
  #room: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Queue a task; it must handle its own errors. */
  add(task: () => Promise<void>): void {
    this.#waiting.push(task);
    this.#next();
  }

  /** Tasks queued or running. */
  get size(): number {
    return this.#active + this.#waiting.length;
  }

  /** Resolves once at most `limit` tasks are queued or running (back-pressure for producers). */
  async waitForRoom(limit: number): Promise<void> {
    while (this.size > limit) await new Promise<void>((resolve) => this.#room.push(resolve));
  }

  /** Resolves when every queued task has finished. */
  idle(): Promise<void> {
    if (this.#active === 0 && this.#waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #next(): void {
    while (this.#active < this.#limit && this.#waiting.length > 0) {
      const task = this.#waiting.shift() as () => Promise<void>;
      this.#active++;
      task()
        .catch(() => {})
        .finally(() => {
          this.#active--;
          this.#next();
          for (const resolve of this.#room.splice(0)) resolve();
          if (this.#active === 0 && this.#waiting.length === 0) {
            for (const resolve of this.#idle.splice(0)) resolve();
          }
        });
    }
  }
}
