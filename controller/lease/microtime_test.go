package lease_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/lease"
)

func TestMicroTime_writes_microseconds_in_UTC(t *testing.T) {
	at := time.Date(2026, 1, 1, 1, 0, 15, 123456789, time.FixedZone("CET", 3600))
	b, err := json.Marshal(lease.Spec{RenewTime: lease.NewMicroTime(at), AcquireTime: &lease.MicroTime{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"acquireTime":null,"renewTime":"2026-01-01T00:00:15.123456Z"}`; got != want {
		t.Fatalf("marshalled %s, want %s", got, want)
	}
}

func TestMicroTime_reads_what_servers_and_people_write(t *testing.T) {
	tests := []struct {
		name, json string
		want       time.Time
	}{
		{"six digits, as the server writes", `"2026-01-01T00:00:15.123456Z"`, time.Date(2026, 1, 1, 0, 0, 15, 123456000, time.UTC)},
		{"no fraction, as a hand-made Lease may have", `"2026-01-01T00:00:15Z"`, time.Date(2026, 1, 1, 0, 0, 15, 0, time.UTC)},
		{"another zone", `"2026-01-01T01:00:15+01:00"`, time.Date(2026, 1, 1, 0, 0, 15, 0, time.UTC)},
		{"null", `null`, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m lease.MicroTime
			if err := json.Unmarshal([]byte(tt.json), &m); err != nil {
				t.Fatal(err)
			}
			if !m.Equal(tt.want) {
				t.Fatalf("read %s, want %s", m.Time, tt.want)
			}
		})
	}
}

func TestMicroTime_rejects_what_is_not_a_time(t *testing.T) {
	for _, in := range []string{`15`, `"yesterday"`, `"`, `"0000-01-01T00:00:00+01:00"`, `"9999-12-31T23:00:00-01:00"`} {
		var m lease.MicroTime
		if err := m.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("UnmarshalJSON(%s) = nil, want an error", in)
		}
	}
}
