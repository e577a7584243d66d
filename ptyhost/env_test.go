package ptyhost

import (
	"slices"
	"testing"
)

func TestHeadlessEnv(t *testing.T) {
	for _, tc := range []struct {
		env, want []string
	}{
		{[]string{"HOME=/h", "TERM=linux"}, []string{"HOME=/h", "TERM=xterm-256color"}},
		{[]string{"TERM=dumb", "NO_COLOR=1"}, []string{"TERM=xterm-256color"}},
		{[]string{"NO_COLOR=", "TERM=xterm"}, []string{"TERM=xterm"}},
		{[]string{"HOME=/h"}, []string{"HOME=/h", "TERM=xterm-256color"}},
		{[]string{"TERM=screen-256color", "FORCE_COLOR=0"}, []string{"TERM=screen-256color"}},
		{[]string{"TERM=xterm-kitty", "FORCE_COLOR=1"}, []string{"TERM=xterm-kitty", "FORCE_COLOR=1"}},
	} {
		if got := headlessEnv(tc.env); !slices.Equal(got, tc.want) {
			t.Errorf("headlessEnv(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestUnreadable(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"TERM=xterm-256color"}, ""},
		{[]string{"TERM=xterm-256color", "FORCE_COLOR=1"}, ""},
		{[]string{"TERM=linux"}, "TERM=linux has Claude draw its menus in ASCII"},
		{[]string{"TERM=xterm", "NO_COLOR="}, ""},
		{[]string{"TERM=xterm", "NO_COLOR=1"}, "NO_COLOR=1 has Claude draw without colours"},
		{[]string{"TERM=dumb", "FORCE_COLOR=false"}, "TERM=dumb has Claude draw its menus in ASCII; FORCE_COLOR=false has Claude draw without colours"},
	} {
		if got := Unreadable(tc.env); got != tc.want {
			t.Errorf("Unreadable(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
}
