package transcript

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// watcher tells when the file at a path is written, created or replaced:
// inotify on its folder. Its changed channel is nil when the folder
// cannot be watched.
type watcher struct {
	changed chan struct{}
	f       *os.File
}

func watch(path string) watcher {
	if path == "" {
		return watcher{}
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return watcher{}
	}
	const mask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_MOVED_TO
	if _, err := unix.InotifyAddWatch(fd, filepath.Dir(path), mask); err != nil {
		unix.Close(fd)
		return watcher{}
	}
	// A non-blocking descriptor goes to the runtime's poller: close ends
	// the read below.
	w := watcher{changed: make(chan struct{}, 1), f: os.NewFile(uintptr(fd), "inotify")}
	go w.read([]byte(filepath.Base(path)))
	return w
}

// read wakes changed at each event for the file named name.
func (w watcher) read(name []byte) {
	buf := make([]byte, 64*1024)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return
		}
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			size := int(binary.NativeEndian.Uint32(b[12:16])) // the event's name length
			end := unix.SizeofInotifyEvent + size
			if end > len(b) {
				break
			}
			if bytes.Equal(bytes.TrimRight(b[unix.SizeofInotifyEvent:end], "\x00"), name) {
				select {
				case w.changed <- struct{}{}:
				default:
				}
			}
			b = b[end:]
		}
	}
}

func (w watcher) close() {
	if w.f != nil {
		w.f.Close()
	}
}
