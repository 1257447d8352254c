/**
 * How a repeated batch job sizes its next batch (the workers' search and summary folds, `amem search
 * refresh-impacts`): halved after one that failed for want of time, grown by a quarter, up to its
 * maximum, after one that passed — so a backlog of heavy rows settles on a size that fits the
 * statement timeout, and light rows win the size back in a few batches.
 */
export const halvedBatch = (size: number): number => Math.max(1, Math.floor(size / 2));
export const grownBatch = (size: number, max: number): number => Math.min(max, Math.ceil(size * 1.25));
