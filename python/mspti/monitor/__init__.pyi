"""The monitors: one per kind of data (kernel, HCCL, communication, mstx markers)."""
