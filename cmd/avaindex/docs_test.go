package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the repository's top, from this package's directory.
const repoRoot = "../.."

// TestREADMEIsAFrontDoor keeps README.md short: the rest goes under docs/.
func TestREADMEIsAFrontDoor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 220 {
		t.Errorf("README.md has %d lines, more than 220: move the detail to a page under docs/ and link it", n)
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	mdFence   = regexp.MustCompile("(?ms)^```.*?^```")
)

// TestDocLinksResolve checks every relative link of README.md,
// ARCHITECTURE.md and the pages under docs/: its file exists, and its
// #anchor, if any, is a heading of the page it names.
func TestDocLinksResolve(t *testing.T) {
	pages := []string{"README.md", "ARCHITECTURE.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			pages = append(pages, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) (map[string]bool, error) {
		if a, ok := anchors[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(b))
		anchors[page] = a
		return a, nil
	}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		text := mdFence.ReplaceAllString(string(b), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			linked := page
			if file != "" {
				linked = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
				if _, err := os.Stat(filepath.Join(repoRoot, linked)); err != nil {
					t.Errorf("%s: link %q: no file %s", page, target, linked)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(linked, ".md") {
				continue
			}
			a, err := anchorsOf(linked)
			if err != nil {
				t.Fatal(err)
			}
			if !a[anchor] {
				t.Errorf("%s: link %q: %s has no heading #%s", page, target, linked, anchor)
			}
		}
	}
}

// headingAnchors returns the anchors GitHub gives a page's headings: lower
// case, punctuation dropped, spaces as hyphens, a repeated one numbered.
func headingAnchors(md string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(mdFence.ReplaceAllString(md, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestServedOperationsDocumented checks that every Data API operation of
// the served OpenAPI document (internal/apidoc/openapi.json, which a test
// holds equal to the route table) has its row, by operationId, in a page
// under docs/api/, where the served operations are listed.
func TestServedOperationsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "internal/apidoc/openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs/api/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	n := 0
	for path, ops := range doc.Paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue // avaindex's own routes and the node API, by path in node-api.md
		}
		for method, op := range ops {
			n++
			if !strings.Contains(all.String(), "| `"+op.OperationID+"` |") {
				t.Errorf("%s %s (%s) is served but has no row in docs/api/", strings.ToUpper(method), path, op.OperationID)
			}
		}
	}
	if n == 0 {
		t.Fatal("the served document has no Data API operation")
	}
}
