package wire

// rusageThread is Linux's RUSAGE_THREAD.
const rusageThread = 1
