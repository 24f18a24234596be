/**
 * Loaded into a platform that runs under callgrind (`node --import tsx --import THIS main.ts`, by
 * request-line-cost.ts): each SIGUSR2 reads `process.ppid`, one getppid() call, and callgrind started
 * with `--dump-before=getppid` writes the instructions counted since the last mark to a file of its
 * own. So the bench marks the start and end of each batch of requests from outside, without a hook
 * in the platform's code.
 */
process.on('SIGUSR2', () => void process.ppid);
