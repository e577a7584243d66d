package peercred

import (
	"errors"
	"fmt"
)

// MaxDepth bounds the walk up the process tree (a loop in what the OS
// reports, or a process tree deeper than any real one).
const MaxDepth = 64

// Ancestry is pid and its ancestors, nearest first, up to the first
// process (pid 1) or a process whose parent cannot be read. It fails when
// the tree is deeper than [MaxDepth] or pid's own parent cannot be read.
func Ancestry(pid int) ([]int, error) {
	chain := []int{pid}
	for range MaxDepth {
		if pid <= 1 {
			return chain, nil
		}
		parent, err := ParentOf(pid)
		if err != nil {
			if len(chain) == 1 {
				return nil, fmt.Errorf("process %d: %w", pid, err)
			}
			return chain, nil // an ancestor exited while the walk went on
		}
		pid = parent
		chain = append(chain, pid)
	}
	return nil, errors.New("process tree too deep")
}
