module twserver

go 1.26
