package pkg

func generated() {}
