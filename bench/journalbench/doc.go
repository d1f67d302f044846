// Package journalbench measures what the call journal (idemrt.WithJournal)
// adds to one keyed call on loopback: the same POST with a fresh key per
// call, sent by a Runner without a journal, with the SQLite journal
// (synchronous NORMAL, and FULL) and with the PostgreSQL journal (a
// throwaway cluster, pgtest). The server answers 201 without a ledger, so
// the difference between the rows is the journal's: one write before the
// send (Record) and one after it (Resolve, with the attempt).
// docs/benchmarks.md ("Call journal") has the table and the command.
package journalbench
