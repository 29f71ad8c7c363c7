//@ expect: unsafe
//@ violation: panic
// All three goroutines read the one variable i, declared outside the loop: if they run
// after the loop has ended, each sends 3 and the sum is 9, not 0+1+2.

package main

func main() {
	results := make(chan int, 3)
	var i int
	for i = 0; i < 3; i++ {
		go func() { results <- i }()
	}
	sum := 0
	for k := 0; k < 3; k++ {
		sum += <-results
	}
	if sum != 3 {
		panic("a goroutine saw another iteration's i")
	}
}
