package steps

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestRun(t *testing.T) {
	var ran []string
	errStop := errors.New("stop")
	step := func(name string, err error) Step[*[]string, int] {
		return Step[*[]string, int]{name, func(w *[]string, _ context.Context, batch int) error {
			*w = append(*w, name)
			return err
		}}
	}
	err := Run(context.Background(), &ran, 7, []Step[*[]string, int]{step("a", nil), step("b", errStop), step("c", nil)})
	if !errors.Is(err, errStop) || err.Error() != "b: stop" {
		t.Errorf("err = %v, want b's, named", err)
	}
	if want := []string{"a", "b"}; !slices.Equal(ran, want) {
		t.Errorf("ran %q, want %q: in order, none after the failure", ran, want)
	}
}
