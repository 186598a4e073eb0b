package progress

import (
	"encoding/json"
	"testing"
)

type running struct{}

func (running) Report(s *Status) { s.Running = true; s.Heights = map[string]uint64{"P": 7} }

// TestReporters: each reporter adds its part, queues of several workers
// side by side, and an unset queue is not reported.
func TestReporters(t *testing.T) {
	var nft, rederive, unset Queues
	nft.Set("nft-metadata", 3)
	rederive.Set("rederive:P", 10)
	rederive.Set("rederive:P", 4)
	rederive.Set("rederive:X", 0)
	var s Status
	Reporters{running{}, &nft, &rederive, &unset}.Report(&s)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"running":true,"heights":{"P":7},"queues":{"nft-metadata":3,"rederive:P":4,"rederive:X":0}}`
	if string(b) != want {
		t.Errorf("status = %s\nwant %s", b, want)
	}
	var none Status
	unset.Report(&none)
	if none.Queues != nil {
		t.Errorf("an unset queue reported %v", none.Queues)
	}
}
