package watch

// MaxNice is the highest scheduling priority value (nice) of Linux: the
// thread that yields most.
const MaxNice = 19

// SetNice makes the cache's builds run on threads of scheduling priority
// nice (0..MaxNice; 0, the default, leaves them as they are): a server
// whose games share the cores gives them a higher one, so that the kernel
// runs the games' loops first whenever they want a core. Call it before
// the first Get.
func (c *Cache) SetNice(nice int) {
	c.nice = min(max(nice, 0), MaxNice)
}
