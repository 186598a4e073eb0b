package apidoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// TestHostedIsCurrent makes hosted.json again from the references, when
// they are beside the repository, and requires the committed one to be
// the same bytes.
func TestHostedIsCurrent(t *testing.T) {
	data := readReference(t, ReferenceFile, HostedFile)
	metrics := readReference(t, MetricsReferenceFile, HostedFile)
	want, err := BuildHosted(data, metrics)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(hostedJSON, want) {
		t.Errorf("hosted.json is not what the references give: run go generate ./internal/apidoc")
	}
}

func TestBuildHosted(t *testing.T) {
	data := []byte(`{"paths":{"/v1/b":{"parameters":[],"get":{"operationId":"getB"},"post":{"operationId":"postB"}},"/v1/a":{"get":{"operationId":"getA"}}}}`)
	metrics := []byte("paths:\n  /v2/m/{id}:\n    get:\n      operationId: getM\n")
	b, err := BuildHosted(data, metrics)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range decodeHosted(t, b) {
		got = append(got, op.API+" "+op.Method+" "+op.Path+" "+op.OperationID)
	}
	want := "Data API GET /v1/a getA,Data API GET /v1/b getB,Data API POST /v1/b postB,Metrics API GET /v2/m/{id} getM"
	if strings.Join(got, ",") != want {
		t.Errorf("operations %q, want %s", got, want)
	}
	if _, err := BuildHosted([]byte(`{"paths":{"/v1/a":{"get":{}}}}`), metrics); err == nil || !strings.Contains(err.Error(), "GET /v1/a has no operationId") {
		t.Errorf("an operation without operationId: %v", err)
	}
	if len(HostedOperations()) < 100 {
		t.Errorf("hosted.json has %d operations: not the references'", len(HostedOperations()))
	}
}

// readReference reads a reference document, which what is made from it
// (made) is compared with: a clone without ../shared skips the test, but
// not under CI=true, where the references must be there.
func readReference(t *testing.T, name, made string) []byte {
	t.Helper()
	path := filepath.Join(openapitest.ReferenceDir(t), name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing under CI=true, where ../shared/reference must be present", path)
		}
		t.Skipf("SKIP: %s is not here (a clone without ../shared): %s cannot be compared with it", path, made)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeHosted(t *testing.T, b []byte) []HostedOperation {
	t.Helper()
	var ops []HostedOperation
	if err := json.Unmarshal(b, &ops); err != nil {
		t.Fatal(err)
	}
	return ops
}
