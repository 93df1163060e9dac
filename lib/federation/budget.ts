// A time budget shared by several outbound requests made for one piece of work
// (the ancestors of one reply, the unknown mentions of one post). Each request
// has its own ten-second limit (./fetch.ts); the budget bounds their sum, so
// that an inbox message or a POST /api/v1/statuses waits a bounded time
// however many slow servers it touches.

/** The budget ran out before the work answered: the work is abandoned (its request ends at its own limit). */
export class BudgetSpent extends Error {
  constructor() {
    super('time budget spent');
    this.name = 'BudgetSpent';
  }
}

/** A deadline `ms` from now, in epoch milliseconds. */
export const deadlineIn = (ms: number): number => Date.now() + ms;

/** `work`'s answer if it comes before `deadline`; else rejects with BudgetSpent. */
export function withinBudget<T>(work: Promise<T>, deadline: number): Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) {
    // Whatever it does later is of no interest, its failure included.
    work.catch(() => undefined);
    return Promise.reject(new BudgetSpent());
  }
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BudgetSpent()), left);
  });
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}
