// SPDX-License-Identifier: GPL-2.0-only
// A Go program for tests/e2e/test_go.sh: main.mid calls main.leaf twice,
// CALLS times, from the main goroutine; it prints its own counts.  Its
// first calls grow the goroutine's stack (runtime.morestack copies it
// and runs mid again from its entry).  Built by the test (go build).
package main

import (
	"fmt"
	"os"
	"strconv"
)

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i ^ (s >> 3)
	}
	return s
}

//go:noinline
func mid(n int) int {
	return leaf(n) + leaf(n+1)
}

func main() {
	calls := 1000
	if len(os.Args) > 1 {
		calls, _ = strconv.Atoi(os.Args[1])
	}
	t := 0
	for i := 0; i < calls; i++ {
		t += mid(200)
	}
	fmt.Printf("mid_calls=%d\nleaf_calls=%d\nsum=%d\n", calls, 2*calls, t)
}
