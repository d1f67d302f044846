package generator

import (
	"fmt"
	"sync"
)

// parallel runs fn(0) ... fn(n-1) on one goroutine each and waits for them.
// A panic in fn (a generator bug) is raised again on the caller's goroutine,
// where runJobs turns it into an error, instead of taking the process down.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	var once sync.Once
	var bug any
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { bug = r })
				}
			}()
			fn(i)
		}()
	}
	wg.Wait()
	if bug != nil {
		panic(fmt.Sprint(bug))
	}
}
