// How `tend upgrade` starts a server that takes over from the running one
// (src/server/take-over.ts does it, src/cli/upgrade/ asks for it): two
// environment variables, and two lines on the ready pipe before the usual ones
// (ready-pipe.ts).
//
//   TEND_TAKE_OVER_PID=N       the server to wait for (its process must end)
//   TEND_TAKE_OVER_GATE_FD=M   a pipe: a line on it means "open the store";
//                              its end without one means "give up"; its end
//                              after one means "kept": the trial is over
//                              (src/server/holder-release.ts)
//
//   WAITING <pid>              at once: this build knows how to take over
//   TAKEN                      the locks are held; waiting for the gate

export const TAKE_OVER_PID_ENV = 'TEND_TAKE_OVER_PID';
export const TAKE_OVER_GATE_FD_ENV = 'TEND_TAKE_OVER_GATE_FD';
export const WAITING_LINE = 'WAITING';
export const TAKEN_LINE = 'TAKEN';
