package pkg

func TestA() {}
