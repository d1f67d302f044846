package runtime

import (
	"fmt"
	"time"
)

// Date is a calendar day without a time of day or a zone: the Go type of an
// OpenAPI `format: date` string ("2024-03-01"). It marshals to and from that
// text form, in JSON and in parameters.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// dateLayout is RFC 3339's full-date.
const dateLayout = "2006-01-02"

// DateOf returns the day t falls on, in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate parses a full-date ("2024-03-01").
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("invalid date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// String returns the date as YYYY-MM-DD. It formats the fields as they are,
// without normalising (the zero Date prints as 0000-00-00).
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// In returns midnight at the start of the day in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// MarshalText implements encoding.TextMarshaler (and, through it, JSON).
func (d Date) MarshalText() ([]byte, error) {
	return []byte(d.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler (and, through it, JSON).
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
