package runtime

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDateRoundTrips(t *testing.T) {
	d, err := ParseDate("2024-02-29")
	if err != nil || d != (Date{2024, time.February, 29}) {
		t.Fatalf("ParseDate = %v, %v", d, err)
	}
	b, _ := json.Marshal(struct{ D Date }{d})
	if string(b) != `{"D":"2024-02-29"}` {
		t.Errorf("JSON = %s", b)
	}
	var back struct{ D Date }
	if err := json.Unmarshal(b, &back); err != nil || back.D != d {
		t.Errorf("decode: %v %v", back.D, err)
	}
	for _, bad := range []string{"2023-02-29", "2024-3-1", "2024-03-01T00:00:00Z", ""} {
		if _, err := ParseDate(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if (Date{}).String() != "0000-00-00" || !(Date{}).IsZero() {
		t.Error("zero Date")
	}
	at := time.Date(2024, 3, 1, 23, 30, 0, 0, time.FixedZone("x", -3600))
	if DateOf(at) != (Date{2024, 3, 1}) || !d.In(time.UTC).Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Error("DateOf/In")
	}
}
