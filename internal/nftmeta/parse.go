package nftmeta

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"github.com/avaindex/avaindex/internal"
)

// Parse reads a metadata document (the ERC-721 and ERC-1155 metadata JSON
// schemas, and OpenSea's fields): INVALID_METADATA_JSON when it is not
// JSON, INVALID_METADATA when it is not an object or a field has the
// wrong type, else INDEXED with its fields.
func Parse(doc []byte) internal.NFTMetadata {
	var fields map[string]json.RawMessage
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf")) // a UTF-8 BOM
	if !json.Valid(doc) {
		return internal.NFTMetadata{Status: internal.NFTInvalidMetadataJSON}
	}
	if err := json.Unmarshal(doc, &fields); err != nil || fields == nil {
		return internal.NFTMetadata{Status: internal.NFTInvalidMetadata}
	}
	m := internal.NFTMetadata{Status: internal.NFTIndexed}
	ok := true
	str := func(keys ...string) string {
		for _, k := range keys {
			raw, found := fields[k]
			if !found || string(raw) == "null" {
				continue
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				ok = false
				return ""
			}
			return strings.ReplaceAll(s, "\x00", "")
		}
		return ""
	}
	text := func(key string) string {
		raw, found := fields[key]
		if !found || string(raw) == "null" {
			return ""
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			ok = false
			return ""
		}
		return b.String()
	}
	m.Name = str("name")
	m.Symbol = str("symbol")
	m.Description = str("description")
	m.Image = str("image", "image_url")
	m.Animation = str("animation_url")
	m.ExternalURL = str("external_url", "external_link")
	m.Background = str("background_color")
	m.Attributes = text("attributes")
	m.Properties = text("properties")
	if raw, found := fields["decimals"]; found && string(raw) != "null" {
		var d float64
		if err := json.Unmarshal(raw, &d); err != nil || d < 0 || d > 255 || d != math.Trunc(d) {
			ok = false
		} else {
			n := int(d)
			m.Decimals = &n
		}
	}
	if !ok {
		return internal.NFTMetadata{Status: internal.NFTInvalidMetadata}
	}
	return m
}
