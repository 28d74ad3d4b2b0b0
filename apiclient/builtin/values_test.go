package builtin_test

import (
	"encoding/json"
	"testing"

	"github.com/kubewire/kubewire/apiclient/builtin"
)

func TestIntOrString_round_trips_a_number_and_a_string(t *testing.T) {
	tests := []struct {
		v    builtin.IntOrString
		json string
	}{
		{builtin.Int(80), `80`},
		{builtin.Int(0), `0`},
		{builtin.Int(-1), `-1`},
		{builtin.String("http"), `"http"`},
		{builtin.String("25%"), `"25%"`},
		{builtin.String("80"), `"80"`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(b), tt.json; got != want {
			t.Errorf("Marshal(%v) = %s, want %s", tt.v, got, want)
		}
		var back builtin.IntOrString
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back != tt.v {
			t.Errorf("Unmarshal(%s) = %#v, want %#v", b, back, tt.v)
		}
	}
}

// Int(0) is a value — no pod may be unavailable — and is sent; the zero
// IntOrString is unset, and left out.
func TestIntOrString_zero_is_unset_and_Int0_is_sent(t *testing.T) {
	b, _ := json.Marshal(builtin.RollingUpdateDeployment{MaxUnavailable: builtin.Int(0)})
	if got, want := string(b), `{"maxUnavailable":0}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	var v builtin.RollingUpdateDeployment
	if err := json.Unmarshal([]byte(`{"maxUnavailable":null,"maxSurge":"25%"}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.MaxUnavailable.IsZero() || v.MaxSurge.String() != "25%" {
		t.Errorf("got %#v", v)
	}
	if n, ok := builtin.Int(3).IntValue(); n != 3 || !ok {
		t.Errorf("Int(3).IntValue() = %d, %v", n, ok)
	}
	if _, ok := builtin.String("3").IntValue(); ok {
		t.Error(`String("3").IntValue() says it is a number`)
	}
}

func TestIntOrString_refuses_what_is_neither(t *testing.T) {
	for _, in := range []string{`1.5`, `2147483648`, `true`, `{}`, `"unterminated`} {
		var v builtin.IntOrString
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("Unmarshal(%s) = %#v, want an error", in, v)
		}
	}
}
