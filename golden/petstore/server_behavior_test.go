package petstore_test

// The generated petstore client against the generated petstore server over
// loopback, with an echo handler: what the client passes arrives, and what
// the handler returns is what the client decodes. Hand-written; the golden
// test leaves files without the generated header alone.

import (
	"context"
	"errors"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/petstore"
	_ "github.com/idemgen/idemgen/internal/testutil" // defines -update for go test ./... -update
	idemrt "github.com/idemgen/idemgen/runtime"
)

type echo struct {
	mu  sync.Mutex
	got []any
}

func (e *echo) saw(v ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, v)
}

func (e *echo) last() []any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.got[len(e.got)-1].([]any)
}

func (e *echo) CreatePet(_ context.Context, body petstore.NewPet) (*petstore.Pet, error) {
	e.saw(body)
	return &petstore.Pet{ID: 1, Name: body.Name, Tag: body.Tag}, nil
}

func (e *echo) DeletePet(_ context.Context, p petstore.DeletePetParams) error {
	e.saw(p)
	return nil
}

func (e *echo) ListPets(_ context.Context, p petstore.ListPetsParams) (*petstore.ListPetsResult, error) {
	e.saw(p)
	return &petstore.ListPetsResult{Body: petstore.Pets{{ID: 1, Name: "rex"}, {ID: 2, Name: "tom"}}, XNext: "/pets?page=2"}, nil
}

func (e *echo) ShowPetByID(_ context.Context, p petstore.ShowPetByIDParams) (*petstore.Pet, error) {
	e.saw(p)
	if p.PetID == 404 {
		return nil, &idemrt.StatusError{StatusCode: 404, Model: &petstore.Error{Code: 404, Message: "no such pet"}}
	}
	return &petstore.Pet{ID: p.PetID, Name: "rex"}, nil
}

func TestServerEchoesPetstore(t *testing.T) {
	h := &echo{}
	srv, err := petstore.NewServer(h) // no keyed operation: no ledger needed
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := petstore.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tag := "dog"
	pet, err := c.CreatePet(ctx, petstore.NewPet{Name: "rex", Tag: &tag})
	if err != nil || !reflect.DeepEqual(pet, &petstore.Pet{ID: 1, Name: "rex", Tag: &tag}) {
		t.Fatalf("CreatePet = %+v, %v", pet, err)
	}
	want(t, h, petstore.NewPet{Name: "rex", Tag: &tag})
	lim := int32(10)
	list, err := c.ListPets(ctx, petstore.ListPetsParams{Limit: &lim})
	if err != nil || len(list.Body) != 2 || list.XNext != "/pets?page=2" || list.StatusCode != 200 {
		t.Fatalf("ListPets = %+v, %v", list, err)
	}
	want(t, h, petstore.ListPetsParams{Limit: &lim})
	if got, err := c.ShowPetByID(ctx, petstore.ShowPetByIDParams{PetID: 7}); err != nil || got.ID != 7 {
		t.Errorf("ShowPetByID = %+v, %v", got, err)
	}
	_, err = c.ShowPetByID(ctx, petstore.ShowPetByIDParams{PetID: 404})
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || !reflect.DeepEqual(se.Model, &petstore.Error{Code: 404, Message: "no such pet"}) {
		t.Errorf("404: %v", err)
	}
	if err := c.DeletePet(ctx, petstore.DeletePetParams{PetID: 9}); err != nil {
		t.Fatal(err)
	}
	want(t, h, petstore.DeletePetParams{PetID: 9})
}

func want(t *testing.T, h *echo, v ...any) {
	t.Helper()
	if got := h.last(); !reflect.DeepEqual(got, v) {
		t.Errorf("handler received %#v, want %#v", got, v)
	}
}
