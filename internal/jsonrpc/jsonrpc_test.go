package jsonrpc

import (
	"context"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		body    string
		batch   bool
		methods []string // nil: no request
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"platform.getHeight","params":{}}`, false, []string{"platform.getHeight"}},
		{" \n\t{\"Method\":\"a.b\"}", false, []string{"a.b"}},
		{`[{"method":"a.b"},7,{"method":"c.d"}]`, true, []string{"a.b", "", "c.d"}},
		{`[`, true, nil},
		{`{"method":`, false, nil},
		{`{"method":1}`, false, nil},
		{``, false, nil},
	} {
		reqs, batch := Parse([]byte(tc.body))
		if batch != tc.batch || len(reqs) != len(tc.methods) {
			t.Errorf("%q: batch %v, %d requests; want %v, %d", tc.body, batch, len(reqs), tc.batch, len(tc.methods))
			continue
		}
		for i, r := range reqs {
			if r.Method != tc.methods[i] {
				t.Errorf("%q: request %d calls %q, want %q", tc.body, i, r.Method, tc.methods[i])
			}
		}
	}
}

func TestBodyOf(t *testing.T) {
	if BodyOf(context.Background()) != nil {
		t.Fatal("a body in a context none was put in")
	}
	b := &Body{Raw: []byte("{}")}
	if BodyOf(WithBody(context.Background(), b)) != b {
		t.Fatal("the body put in is not the one found")
	}
}
