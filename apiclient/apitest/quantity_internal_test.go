package apitest

import "testing"

// Quantities come back as kube-apiserver v1.37 answers them (read from a real
// server: a Pod's requests, created and read back; the two finer than a
// milli are a Quantity's own rounding, to a nano).
func TestCanonicalQuantity(t *testing.T) {
	for in, want := range map[string]string{
		"0.5": "500m", "500m": "500m", "1": "1", "1000m": "1", "0.1": "100m", "2.5": "2500m",
		"1024Mi": "1Gi", "1.5Gi": "1536Mi", "1Gi": "1Gi", "128974848": "128974848", "129e6": "129e6",
		"64M": "64M", "1000k": "1M", "0": "0", "100Mi": "100Mi", "1e3": "1e3", "1.5": "1500m", "0.5Gi": "512Mi",
		"0.5Ki": "512", "1.0000000001": "1000000001n",
		"1.5.5Gi": "", "Gi": "", "x": "",
	} {
		got, err := canonicalQuantity(in, false)
		if want == "" {
			if err == nil {
				t.Errorf("%q: %q, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}

// In a ResourceList they are rounded up to a thousandth, as core/v1's
// defaulting does (read from a real server likewise).
func TestCanonicalQuantity_in_a_resource_list(t *testing.T) {
	for in, want := range map[string]string{
		"1.0001": "1001m", "1.000000001": "1001m", "0.0000000001": "1m", "1.5e-10": "1e-3", "0.000001": "1m",
		"12345678901234.5": "12345678901234500m", "0.5": "500m", "1.5Gi": "1536Mi",
	} {
		if got, err := canonicalQuantity(in, true); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}
