package nodeapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Echo is a minimal service for testing the server's transport.
type Echo struct{}

type EchoArgs struct {
	Text string `json:"text"`
}

func (*Echo) Say(_ *http.Request, args *EchoArgs, reply *EchoArgs) error {
	reply.Text = args.Text
	return nil
}

func TestServerBoundsRequests(t *testing.T) {
	h, err := newServer(&Echo{}, "echo")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(body []byte) (int, map[string]json.RawMessage) {
		t.Helper()
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var env map[string]json.RawMessage
		_ = json.Unmarshal(raw, &env)
		return resp.StatusCode, env
	}

	status, env := post([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo.say","params":{"text":"hi"}}`))
	if status != 200 || string(env["result"]) != `{"text":"hi"}` {
		t.Fatalf("small request: %d %v", status, env)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"echo.say","params":{"text":"` + strings.Repeat("x", MaxRequestBytes) + `"}}`
	status, env = post([]byte(big))
	if _, ok := env["result"]; ok {
		t.Fatalf("a request over %d bytes was served: HTTP %d", MaxRequestBytes, status)
	}
	if _, ok := env["error"]; !ok && status == http.StatusOK {
		t.Fatalf("a request over the limit got neither an error nor a failing status: %d %v", status, env)
	}
}
