package apiclient_test

import (
	"encoding/json"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

func TestJSONOf_passes_bytes_through_and_marshals_values(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{[]byte(`{"a":1}`), `{"a":1}`},
		{json.RawMessage(`{"b":2}`), `{"b":2}`},
		{map[string]int{"c": 3}, `{"c":3}`},
		{struct {
			D string `json:"d"`
		}{"x"}, `{"d":"x"}`},
	} {
		got, err := apiclient.JSONOf(tt.v)
		if err != nil || string(got) != tt.want {
			t.Fatalf("JSONOf(%#v) = %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
}
