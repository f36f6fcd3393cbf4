package io.bayeux.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** A Spring Boot application with one service bean, on the auto-configured server. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(GreeterService.class)
class GreeterApplication {

    @Bean
    GreeterService.Greeting greeting() {
        return new GreeterService.Greeting("hello, ");
    }
}
