package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
)

type newOrder struct {
	Item        string `json:"item"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
}

type order struct {
	ID          string `json:"id"`
	Item        string `json:"item"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
	ChargeID    string `json:"charge_id"`
}

type payment struct {
	ID          string `json:"id"`
	OrderID     string `json:"order_id"`
	AmountCents int64  `json:"amount_cents"`
}

// createOrder writes the order, its charge and an "order.created" event in
// the ledger's transaction: all three exist exactly when the key completed.
func (s *Server) createOrder(w http.ResponseWriter, r *http.Request) {
	var in newOrder
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Item == "" || in.AmountCents < 1 || in.Currency == "" {
		writeJSONProblem(w, http.StatusBadRequest, "item, amount_cents >= 1 and currency are required")
		return
	}
	ctx, tx := r.Context(), ledger.Tx(r.Context())
	caller, _ := callerOf(r)
	o := order{ID: "ord_" + uuid.NewString(), Item: in.Item, AmountCents: in.AmountCents, Currency: in.Currency, ChargeID: "ch_" + uuid.NewString()}
	now := time.Now().UnixNano()
	err := s.exec(ctx, tx, `INSERT INTO orders (id, caller, item, amount_cents, currency, charge_id, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)`, o.ID, caller, o.Item, o.AmountCents, o.Currency, o.ChargeID, now)
	if err == nil {
		err = s.exec(ctx, tx, `INSERT INTO charges (id, order_id, caller, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)`,
			o.ChargeID, o.ID, caller, o.AmountCents, now)
	}
	if err == nil {
		_, err = s.ob.Add(ctx, tx, outbox.Event{ID: "evt_" + o.ID, Topic: "order.created", Payload: []byte(o.ID)})
	}
	if err == nil {
		err = s.hooks.pauseAfterReserve(ctx)
	}
	if err != nil {
		writeJSONProblem(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Location", "/orders/"+o.ID)
	writeJSON(w, http.StatusCreated, o)
}

// createPayment charges an existing order of the caller again.
func (s *Server) createPayment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		AmountCents int64 `json:"amount_cents"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.AmountCents < 1 {
		writeJSONProblem(w, http.StatusBadRequest, "amount_cents >= 1 is required")
		return
	}
	ctx, tx := r.Context(), ledger.Tx(r.Context())
	caller, _ := callerOf(r)
	orderID := r.PathValue("orderId")
	var n int
	err := tx.QueryRowContext(ctx, s.db.Dialect().Rebind(`SELECT COUNT(*) FROM orders WHERE id = ? AND caller = ?`), orderID, caller).Scan(&n)
	if err == nil && n == 0 {
		writeJSONProblem(w, http.StatusNotFound, "no such order")
		return
	}
	p := payment{ID: "ch_" + uuid.NewString(), OrderID: orderID, AmountCents: in.AmountCents}
	if err == nil {
		err = s.exec(ctx, tx, `INSERT INTO charges (id, order_id, caller, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)`,
			p.ID, orderID, caller, p.AmountCents, time.Now().UnixNano())
	}
	if err == nil {
		_, err = s.ob.Add(ctx, tx, outbox.Event{ID: "evt_" + p.ID, Topic: "payment.created", Payload: []byte(p.ID)})
	}
	if err != nil {
		writeJSONProblem(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, p)
}

// getOrder reads one of the caller's orders; another caller's order is 404.
func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) {
	caller, err := callerOf(r)
	if err != nil {
		writeJSONProblem(w, http.StatusUnauthorized, err.Error())
		return
	}
	var o order
	err = s.db.Reader().QueryRowContext(r.Context(), s.db.Dialect().Rebind(`SELECT id, item, amount_cents, currency, charge_id
FROM orders WHERE id = ? AND caller = ?`), r.PathValue("orderId"), caller).Scan(&o.ID, &o.Item, &o.AmountCents, &o.Currency, &o.ChargeID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		writeJSONProblem(w, http.StatusNotFound, "no such order")
	case err != nil:
		writeJSONProblem(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, o)
	}
}

// notify is the outbox's downstream: it records each event once in the
// notifications table, however often the relay delivers it.
func (s *Server) notify(ctx context.Context, e outbox.Event) error {
	_, err := s.ob.Consume(ctx, "notifier", e, func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		return s.exec(ctx, tx, `INSERT INTO notifications (event_id, topic, subject) VALUES (?, ?, ?)`, e.ID, e.Topic, string(e.Payload))
	})
	return err
}

func (s *Server) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) error {
	_, err := tx.ExecContext(ctx, s.db.Dialect().Rebind(q), args...)
	return err
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeJSONProblem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"title": http.StatusText(status), "status": status, "detail": detail})
}
