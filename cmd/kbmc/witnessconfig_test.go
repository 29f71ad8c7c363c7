package main

import (
	"slices"
	"testing"

	"kbmc/lang"
)

// The configuration a witness records reads back as the flags and modes it
// was written from: a replay lowers the program as the search did.
func TestWitnessConfig(t *testing.T) {
	for _, c := range []struct {
		name     string
		phantoms bool
		delays   []int64
		sampled  bool
		want     string
	}{
		{"plain", false, nil, false, "--data-model ILP32 --pool 3"},
		{"phantoms", true, nil, false, "--data-model ILP32 --pool 3 --phantoms"},
		{"phantoms, no delay", true, []int64{0, 0}, false, "--data-model ILP32 --pool 3 --phantoms"},
		{"delays", true, []int64{9936, 0}, true, "--data-model ILP32 --pool 3 --phantoms --phantom-delays 9936,0 --sampled-races"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := sourceConfig{Config: lang.Config{Width: 64}, DataModel: "ILP32", Pool: 3}
			s := witnessConfig(cfg, c.phantoms, c.delays, c.sampled)
			if s != c.want {
				t.Fatalf("configuration %q, want %q", s, c.want)
			}
			back, modes, err := parseWitnessConfig(s)
			if err != nil {
				t.Fatal(err)
			}
			if back.Pool != 3 || back.DataModel != "ILP32" || modes.phantoms != c.phantoms || modes.sampledRaces != c.sampled {
				t.Errorf("read back as %+v, %+v", back, modes)
			}
			if slices.ContainsFunc(c.delays, func(d int64) bool { return d != 0 }) != (modes.delays != nil) ||
				modes.delays != nil && !slices.Equal(modes.delays, c.delays) {
				t.Errorf("delays read back as %v, want %v", modes.delays, c.delays)
			}
		})
	}
	for _, bad := range []string{"--phantom-delays x", "--phantom-delays -1", "--phantom-delays 1,,2"} {
		if _, _, err := parseWitnessConfig(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
