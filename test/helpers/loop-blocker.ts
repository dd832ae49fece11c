// Loaded into a gateway process with `--import` (NODE_OPTIONS): SIGUSR2 turns on a blocker that keeps
// the event loop busy (150 ms of work every millisecond, as a flood of requests would), a second SIGUSR2 turns
// it off. End-to-end tests overload the real gateway with it, on cue, whatever the machine's speed.
const SPIN_MS = 150;
let timer: NodeJS.Timeout | null = null;

function spin(): void {
  const until = performance.now() + SPIN_MS;
  while (performance.now() < until) {
    // Busy on purpose: this is the load.
  }
}

process.on('SIGUSR2', () => {
  if (timer === null) {
    timer = setInterval(spin, 1);
    timer.unref();
  } else {
    clearInterval(timer);
    timer = null;
  }
});
