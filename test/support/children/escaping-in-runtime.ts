// A child process for the guard test, as the Lambda runtime runs our code: the runtime's own crash listeners are
// registered first (here: print what they saw, end the process with 3, as the runtime ends the container). Errors
// inside requests must settle only their request; one raised outside any request must reach the runtime's listener.
process.on('uncaughtException', (err) => {
  process.stdout.write(`${JSON.stringify({ runtime: 'uncaughtException', message: err.message })}\n`);
  process.exit(3);
});
process.on('unhandledRejection', (reason) => {
  process.stdout.write(`${JSON.stringify({ runtime: 'unhandledRejection', message: (reason as Error).message })}\n`);
  process.exit(3);
});

// Loaded after the runtime's listeners, as the runtime loads a handler.
const { runAll } = await import('./escaping-handlers');
await runAll({ withBody: false });

// Between invocations, outside any request: the runtime's to handle.
const mode = process.argv[2] === 'rejection' ? 'rejection' : 'throw';
setTimeout(() => {
  if (mode === 'throw') throw new Error('outside any request');
  void Promise.reject(new Error('rejected outside any request'));
}, 5);
await new Promise((resolve) => setTimeout(resolve, 2_000));
process.stdout.write(`${JSON.stringify({ stillServing: true })}\n`);

export {};
