// A worker that fails while loading (for the WorkerPool test of a script that never becomes ready).
throw new Error('broken on purpose');
