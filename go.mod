module github.com/tilecopy/tilecopy

go 1.26.8
