package runtime

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/url"
)

// SlogObserver returns an Observer that logs every attempt to l: Debug for a
// call that succeeded at its first attempt, Info for retries and the records
// leading to them, Warn for a call that ended without success. Records carry
// no headers, so no Authorization or Cookie value can reach the log.
func SlogObserver(l *slog.Logger) Observer {
	if l == nil {
		l = slog.Default()
	}
	return slogObserver{l}
}

// WithSlog is WithObserver(SlogObserver(l)).
func WithSlog(l *slog.Logger) Option { return WithObserver(SlogObserver(l)) }

type slogObserver struct{ l *slog.Logger }

// ObserveAttempt logs a.
func (o slogObserver) ObserveAttempt(ctx context.Context, a Attempt) {
	level := slog.LevelInfo
	switch {
	case a.Final && a.Outcome != OutcomeSuccess:
		level = slog.LevelWarn
	case a.Final && a.Number == 1:
		level = slog.LevelDebug
	}
	if !o.l.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", a.Operation),
		slog.Int("attempt", a.Number),
		slog.String("reason", a.Reason.String()),
		slog.Int("status", a.StatusCode),
		slog.Duration("wait", a.Wait),
		slog.String("wait_source", a.WaitSource.String()),
		budgetAttr(a.BudgetLeft),
		slog.Duration("time_left", a.TimeLeft),
		slog.Bool("final", a.Final),
	}
	if a.Key != "" {
		attrs = append(attrs, slog.String("key", a.Key))
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", errorText(a.Err)))
	}
	if a.Final || a.Outcome == OutcomeRedirected || a.Outcome == OutcomeCancelled {
		attrs = append(attrs, slog.String("outcome", a.Outcome.String()))
	}
	o.l.LogAttrs(ctx, level, "idemgen attempt", attrs...)
}

// budgetAttr logs the budget; an unlimited one as a string, since JSON has no
// infinity.
func budgetAttr(left float64) slog.Attr {
	if math.IsInf(left, 1) {
		return slog.String("budget_left", "unlimited")
	}
	return slog.Float64("budget_left", left)
}

// errorText is the error's message without the request URL that a
// *url.Error adds: query strings often carry API keys.
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}
