package config

import (
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"
)

func TestSpamTokenLists(t *testing.T) {
	a := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	d := common.HexToAddress("0x00000000000000000000000000000000000000dd")
	c, err := Load("t", []string{"--spam-token-allow", "43114:" + a.Hex(), "--spam-token-deny", d.Hex()}, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.SpamTokens
	if !s.Allowed(43114, a) || s.Allowed(1, a) || s.Denied(43114, a) || !s.Denied(1, d) || !s.Denied(43114, d) || s.Allowed(1, d) {
		t.Errorf("lists %+v", s)
	}
	for _, bad := range []string{"0x12", "x:" + a.Hex(), "0:" + a.Hex(), "43114:", strings.TrimPrefix(a.Hex(), "0x")} {
		if _, err := Load("t", []string{"--spam-token-deny", bad}, env(nil), nil); err == nil || !strings.Contains(err.Error(), "spam-token-deny") {
			t.Errorf("--spam-token-deny %q: %v", bad, err)
		}
	}
}
