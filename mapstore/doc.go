// Package mapstore owns the maps a server can run: the map files it loads
// (the configured one, or one by name from the map directory, bounded by
// MaxFileSize), the directory's list, the rotation (Next), and the sharing
// of loaded maps and of their 0.6 variants between the games of a process
// (a map file loaded once while its file is unchanged; a variant derived
// once per map, only when a 0.6 client first asks for it).
//
// The sharing is process-wide state behind one mutex, holding weak
// pointers, so a map no game uses any more is collected. Loading reads
// files and may take milliseconds: the game loop calls it at start-up and
// on a map change only. It does not import server/.
package mapstore
