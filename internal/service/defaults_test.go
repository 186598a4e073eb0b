package service

import (
	"io"
	"testing"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/derive"
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

// TestRederiveBatchDefaults: a rederive batches as the indexer does;
// derive cannot import ingest.
func TestRederiveBatchDefaults(t *testing.T) {
	if derive.DefaultBatchSize != ingest.DefaultBatchSize || derive.DefaultBatchRecords != ingest.DefaultBatchRecords {
		t.Errorf("derive's batches are of %d blocks and %d records, ingest's of %d and %d",
			derive.DefaultBatchSize, derive.DefaultBatchRecords, ingest.DefaultBatchSize, ingest.DefaultBatchRecords)
	}
}
