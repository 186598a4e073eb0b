package service

import (
	"io"
	"testing"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/ingest"
)

// TestIngestBatchSizeDefault: --ingest-batch-size defaults to the
// indexer's own default, which config cannot import.
func TestIngestBatchSizeDefault(t *testing.T) {
	cfg, err := config.Load("avaindex", nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.IngestBatchSize != ingest.DefaultBatchSize {
		t.Errorf("--ingest-batch-size defaults to %d, ingest.DefaultBatchSize is %d", cfg.IngestBatchSize, ingest.DefaultBatchSize)
	}
}
