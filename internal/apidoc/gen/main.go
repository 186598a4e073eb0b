// Command gen writes internal/apidoc/openapi.json, the OpenAPI document
// avaindex serves at /openapi.json: the operations of the Data API reference
// (../shared/reference, or $AVAINDEX_REFERENCE_DIR) that the Data API's
// routes serve, and own.yaml for the rest (see apidoc.Build); and
// metrics-openapi.json, the Metrics API's document, served at
// /openapi/metrics.json (apidoc.BuildMetrics: the Metrics API reference's
// operations its routes serve); and hosted.json, every operation of the
// Data API's and the Metrics API's references (apidoc.BuildHosted), which
// the server tells apart from a typo when avaindex does not serve it:
//
//	go generate ./internal/apidoc
//
// Run it when a route is added; TestOpenAPIDocumentsEveryRoute
// (internal/service) fails until then.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apidoc"
	"github.com/avaindex/avaindex/internal/metricsapi"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "apidoc/gen:", err)
		os.Exit(1)
	}
}

func run() error {
	refDir, err := openapitest.LocateReferenceDir()
	if err != nil {
		return err
	}
	root, err := openapitest.RepoRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "internal", "apidoc")
	ref, err := os.ReadFile(filepath.Join(refDir, apidoc.ReferenceFile))
	if err != nil {
		return fmt.Errorf("reading the reference document: %w", err)
	}
	own, err := os.ReadFile(filepath.Join(dir, apidoc.OwnFile))
	if err != nil {
		return fmt.Errorf("reading %s: %w", apidoc.OwnFile, err)
	}
	doc, err := apidoc.Build(ref, own, api.Patterns())
	if err != nil {
		return err
	}
	out := filepath.Join(dir, apidoc.DocumentFile)
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		return fmt.Errorf("writing the document: %w", err)
	}
	fmt.Printf("%s (%d bytes)\n", out, len(doc))

	metricsRef, err := os.ReadFile(filepath.Join(refDir, apidoc.MetricsReferenceFile))
	if err != nil {
		return fmt.Errorf("reading the Metrics API reference document: %w", err)
	}
	metricsOwn, err := os.ReadFile(filepath.Join(dir, apidoc.MetricsOwnFile))
	if err != nil {
		return fmt.Errorf("reading %s: %w", apidoc.MetricsOwnFile, err)
	}
	metricsDoc, err := apidoc.BuildMetrics(metricsRef, metricsOwn, metricsapi.Patterns())
	if err != nil {
		return err
	}
	out = filepath.Join(dir, apidoc.MetricsDocumentFile)
	if err := os.WriteFile(out, metricsDoc, 0o644); err != nil {
		return fmt.Errorf("writing the Metrics API document: %w", err)
	}
	fmt.Printf("%s (%d bytes)\n", out, len(metricsDoc))
	hosted, err := apidoc.BuildHosted(ref, metricsRef)
	if err != nil {
		return err
	}
	out = filepath.Join(dir, apidoc.HostedFile)
	if err := os.WriteFile(out, hosted, 0o644); err != nil {
		return fmt.Errorf("writing the hosted operations: %w", err)
	}
	fmt.Printf("%s (%d bytes)\n", out, len(hosted))
	return nil
}
