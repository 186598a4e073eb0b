package api

import (
	"math/big"
	"testing"
)

func TestAVAXDecimal(t *testing.T) {
	for _, tc := range []struct {
		v    string
		dec  int
		want string
	}{
		{"0", 9, "0"},
		{"1", 9, "0.000000001"},
		{"1500000000", 9, "1.5"},
		{"360000000000000000", 9, "360000000"},
		{"123456789012345678901", 18, "123.456789012345678901"},
		{"-2500000000", 9, "-2.5"},
	} {
		v, _ := new(big.Int).SetString(tc.v, 10)
		if got := avaxDecimal(v, tc.dec); got != tc.want {
			t.Errorf("avaxDecimal(%s, %d) = %s; want %s", tc.v, tc.dec, got, tc.want)
		}
	}
}
