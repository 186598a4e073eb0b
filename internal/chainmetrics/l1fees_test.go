package chainmetrics

import (
	"reflect"
	"testing"
)

// TestL1FeeValues checks the spans of two validators' changes and what
// they paid per day: validator 0 active over [100, 130), then [130, 250)
// until its end point, again over [300, 310) until disabled; validator 1
// from 200 with an end point far ahead. Day 0 charged [0, 150], day 2
// (86400*2) [150, 320]; day 1 had no block.
func TestL1FeeValues(t *testing.T) {
	changes := []L1Change{
		{Validator: 0, Accrued: 100, End: 200},
		{Validator: 0, Accrued: 130, End: 250}, // top-up
		{Validator: 0, Accrued: 250, End: 0},   // ran out
		{Validator: 0, Accrued: 300, End: 340}, // reactivated
		{Validator: 0, Accrued: 310, End: 0},   // disabled
		{Validator: 1, Accrued: 200, End: 10_000},
		{Validator: 2, Accrued: 200, End: 0}, // registered without a balance
	}
	spans := L1Spans(changes)
	wantSpans := []L1Span{{0, 100, 130}, {0, 130, 250}, {0, 300, 310}, {1, 200, 10_000}}
	if !reflect.DeepEqual(spans, wantSpans) {
		t.Fatalf("spans = %v, want %v", spans, wantSpans)
	}
	hist := []L1FeeDay{{Day: 0, Start: 0, End: 150}, {Day: 2 * 86400, Start: 150, End: 320}}
	got := L1FeeValues(hist, spans, []int64{3 * 86400, 2 * 86400, 86400, 0, -86400})
	want := []L1FeeValue{
		{Fees: 0, Cumulative: 280, Paying: 0},   // no block: the day before's total
		{Fees: 230, Cumulative: 280, Paying: 2}, // 0: 100 + 10, 1: 120
		{Fees: 0, Cumulative: 50, Paying: 0},
		{Fees: 50, Cumulative: 50, Paying: 1},
		{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values = %+v, want %+v", got, want)
	}
}
