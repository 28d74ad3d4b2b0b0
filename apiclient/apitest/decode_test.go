package apitest_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

// A built-in object keeps only the fields its type has, as kube-apiserver
// decodes it: the rest are dropped with a warning, refused under Strict,
// dropped silently under Ignore, and an apply that carries one is a 500.
func TestDecode_unknown_fields_of_built_in_kinds(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const cms = "/api/v1/namespaces/demo/configmaps"
	send := func(method, path, ct, body string) (int, []string, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 1<<16)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, resp.Header.Values("Warning"), b.String()
	}
	code, warns, body := send("POST", cms, "application/json", `{"metadata":{"name":"a","extra":"x"},"extra":1,"data":{"k":"v"}}`)
	if code != 201 || strings.Contains(body, "extra") || len(warns) != 2 || !strings.Contains(strings.Join(warns, "|"), `unknown field \"metadata.extra\"`) {
		t.Errorf("a create with unknown fields: %d %q %s, want 201, both dropped and warned of", code, warns, body)
	}
	if code, _, _ := send("POST", cms+"?fieldValidation=Strict", "application/json", `{"metadata":{"name":"b"},"extra":1}`); code != 400 {
		t.Errorf("Strict: %d, want 400", code)
	}
	if code, warns, _ := send("POST", cms+"?fieldValidation=Ignore", "application/json", `{"metadata":{"name":"c"},"extra":1}`); code != 201 || len(warns) != 0 {
		t.Errorf("Ignore: %d %q, want 201 and no warning", code, warns)
	}
	if code, _, _ := send("POST", cms+"?fieldValidation=Bogus", "application/json", `{"metadata":{"name":"d"}}`); code != 422 {
		t.Errorf("Bogus: %d, want 422", code)
	}
	if code, _, _ := send("PATCH", cms+"/a?fieldValidation=Strict", "application/merge-patch+json", `{"extra":1}`); code != 422 {
		t.Errorf("a Strict merge patch: %d, want 422", code)
	}
	if code, _, _ := send("PATCH", cms+"/a?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"extra":1}`); code != 500 {
		t.Errorf("an apply with an unknown field: %d, want 500", code)
	}
}

// Quantities are kept canonical: what a controller reads back is what a
// cluster answers, so a comparison with what it wants converges as there.
func TestDecode_quantities_are_canonical(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	code, body := raw(t, srv, "POST", "/api/v1/namespaces/demo/pods", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"0.5","memory":"1024Mi"},"limits":{"memory":"1.5Gi"}}}]}}`)
	for _, want := range []string{`"cpu":"500m"`, `"memory":"1Gi"`, `"memory":"1536Mi"`} {
		if code != 201 || !strings.Contains(body, want) {
			t.Errorf("create: %d, want %s in %s", code, want, body)
		}
	}
	if code, _ := raw(t, srv, "PATCH", "/api/v1/namespaces/demo/pods/p", `{"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1.5.5"}}}]}}`); code != 400 {
		t.Errorf("a patch to a quantity that is none: %d, want 400", code)
	}
}

// Times are parsed and written as kube-apiserver's meta/v1 Time and MicroTime
// are (which a field is comes from the recorded schemas): a Lease's renewTime
// needs its six fractional digits, +02:00 comes back as Z, a date-time is kept
// to the second, and what is no time is refused — 400 in a body, 422 in a
// patch, 500 in an apply.
func TestDecode_times_as_the_server_parses_them(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const leases = "/apis/coordination.k8s.io/v1/namespaces/demo/leases"
	lease := func(name, renew string) string {
		return `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"` + name + `"},"spec":{"renewTime":"` + renew + `"}}`
	}
	for _, c := range []struct {
		renew string
		code  int
		want  string
	}{
		{"2024-01-02T03:04:05.123456Z", 201, `"renewTime":"2024-01-02T03:04:05.123456Z"`},
		{"2024-01-02T03:04:05.123456+02:00", 201, `"renewTime":"2024-01-02T01:04:05.123456Z"`},
		{"2024-01-02T03:04:05Z", 400, `cannot parse \"Z\" as \".000000\"`},
		{"2024-01-02T03:04:05.123456789Z", 400, `BadRequest`},
		{"yesterday", 400, `parsing time \"yesterday\"`},
	} {
		code, body := raw(t, srv, "POST", leases, lease("l"+strconv.Itoa(len(c.renew)), c.renew))
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("renewTime %s: %d %s, want %d with %s", c.renew, code, body, c.code, c.want)
		}
	}
	const events = "/api/v1/namespaces/demo/events"
	code, body := raw(t, srv, "POST", events, `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"lastTimestamp":"2024-01-02T03:04:05.5+02:00"}`)
	if want := `"lastTimestamp":"2024-01-02T01:04:05Z"`; code != 201 || !strings.Contains(body, want) {
		t.Errorf("an Event's lastTimestamp: %d %s, want 201 with %s", code, body, want)
	}
	if code, body := raw(t, srv, "PATCH", leases+"/l27", `{"spec":{"renewTime":"yesterday"}}`); code != 422 || !strings.Contains(body, `"field":"patch"`) {
		t.Errorf("a patch to a time that is none: %d %s, want 422 with the patch its cause", code, body)
	}
}

// A PUT's body is decoded before its object is looked for, and a PUT of a
// Lease (a Service, Endpoints, an Event, a LimitRange) that does not exist
// creates it, as kube-apiserver's: a Lease's times are checked there too.
func TestUpdate_decodes_first_and_creates_where_the_server_does(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const lease = "/apis/coordination.k8s.io/v1/namespaces/demo/leases/l"
	if code, body := raw(t, srv, "PUT", lease, `{"metadata":{"name":"l"},"spec":{"renewTime":"yesterday"}}`); code != 400 {
		t.Errorf("a PUT of a missing Lease with a time that is none: %d %s, want 400", code, body)
	}
	code, body := raw(t, srv, "PUT", lease, `{"metadata":{"name":"l"},"spec":{"renewTime":"2026-01-01T02:00:00.000000+02:00"}}`)
	if want := `"renewTime":"2026-01-01T00:00:00.000000Z"`; code != 201 || !strings.Contains(body, want) {
		t.Errorf("a PUT of a missing Lease: %d %s, want 201 with %s", code, body, want)
	}
	if code, body := raw(t, srv, "PUT", "/api/v1/namespaces/demo/configmaps/c", `{"metadata":{"name":"c"}}`); code != 404 {
		t.Errorf("a PUT of a missing ConfigMap: %d %s, want 404", code, body)
	}
}

// A Secret's stringData is folded into its data, winning over a key of data,
// on a create and a patch, its type defaults to Opaque, and data that is not
// base64 is refused — 400 in a body, 422 in a patch — as kube-apiserver's
// Secret strategy, defaulting and decoding.
func TestSecret_stringData_folded_and_data_checked(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const secrets = "/api/v1/namespaces/demo/secrets"
	code, body := raw(t, srv, "POST", secrets, `{"metadata":{"name":"s"},"stringData":{"a":"x"},"data":{"a":"eQ==","b":"eQ==\n"}}`)
	if want := `"data":{"a":"eA==","b":"eQ=="}`; code != 201 || !strings.Contains(body, want) || strings.Contains(body, "stringData") {
		t.Errorf("a create with stringData: %d %s, want 201 with %s and no stringData", code, body, want)
	}
	if want := `"type":"Opaque"`; !strings.Contains(body, want) {
		t.Errorf("a create without a type: %s, want %s (the default)", body, want)
	}
	code, body = raw(t, srv, "PATCH", secrets+"/s", `{"stringData":{"c":"z"}}`)
	if want := `"c":"eg=="`; code != 200 || !strings.Contains(body, want) || strings.Contains(body, "stringData") {
		t.Errorf("a patch of stringData: %d %s, want 200 with %s and no stringData", code, body, want)
	}
	for _, data := range []string{"eA", "not base64!"} {
		if code, body := raw(t, srv, "POST", secrets, `{"metadata":{"generateName":"s"},"data":{"a":"`+data+`"}}`); code != 400 || !strings.Contains(body, "illegal base64 data") {
			t.Errorf("data %q: %d %s, want 400", data, code, body)
		}
	}
	if code, body := raw(t, srv, "PATCH", secrets+"/s", `{"data":{"b":"!!"}}`); code != 422 {
		t.Errorf("a patch to data that is not base64: %d %s, want 422", code, body)
	}
}
